CREATE TABLE projects (
	id INTEGER NOT NULL, 
	slug VARCHAR(255) NOT NULL, 
	human_key VARCHAR(255) NOT NULL, 
	created_at DATETIME NOT NULL, 
	PRIMARY KEY (id)
);
CREATE INDEX ix_projects_human_key ON projects (human_key);
CREATE UNIQUE INDEX ix_projects_slug ON projects (slug);
CREATE TABLE agents (
	id INTEGER NOT NULL, 
	project_id INTEGER NOT NULL, 
	name VARCHAR(128) NOT NULL, 
	program VARCHAR(128) NOT NULL, 
	model VARCHAR(128) NOT NULL, 
	task_description VARCHAR(2048) NOT NULL, 
	inception_ts DATETIME NOT NULL, 
	last_active_ts DATETIME NOT NULL, 
	attachments_policy VARCHAR(16) NOT NULL, 
	contact_policy VARCHAR(16) NOT NULL, 
	is_active BOOLEAN NOT NULL, 
	deleted_ts DATETIME, 
	PRIMARY KEY (id), 
	FOREIGN KEY(project_id) REFERENCES projects (id)
);
CREATE INDEX ix_agents_project_id ON agents (project_id);
CREATE INDEX ix_agents_name ON agents (name);
CREATE TABLE project_sibling_suggestions (
	id INTEGER NOT NULL, 
	project_a_id INTEGER NOT NULL, 
	project_b_id INTEGER NOT NULL, 
	score FLOAT NOT NULL, 
	status VARCHAR(16) NOT NULL, 
	rationale VARCHAR(4096) NOT NULL, 
	created_ts DATETIME NOT NULL, 
	evaluated_ts DATETIME NOT NULL, 
	confirmed_ts DATETIME, 
	dismissed_ts DATETIME, 
	PRIMARY KEY (id), 
	CONSTRAINT uq_project_sibling_pair UNIQUE (project_a_id, project_b_id), 
	FOREIGN KEY(project_a_id) REFERENCES projects (id), 
	FOREIGN KEY(project_b_id) REFERENCES projects (id)
);
CREATE INDEX ix_project_sibling_suggestions_project_a_id ON project_sibling_suggestions (project_a_id);
CREATE INDEX ix_project_sibling_suggestions_project_b_id ON project_sibling_suggestions (project_b_id);
CREATE TABLE messages (
	id INTEGER NOT NULL, 
	project_id INTEGER NOT NULL, 
	sender_id INTEGER NOT NULL, 
	thread_id VARCHAR(128), 
	subject VARCHAR(512) NOT NULL, 
	body_md VARCHAR NOT NULL, 
	importance VARCHAR(16) NOT NULL, 
	ack_required BOOLEAN NOT NULL, 
	created_ts DATETIME NOT NULL, 
	attachments JSON DEFAULT '[]' NOT NULL, 
	PRIMARY KEY (id), 
	FOREIGN KEY(project_id) REFERENCES projects (id), 
	FOREIGN KEY(sender_id) REFERENCES agents (id)
);
CREATE INDEX ix_messages_project_id ON messages (project_id);
CREATE INDEX ix_messages_thread_id ON messages (thread_id);
CREATE INDEX ix_messages_sender_id ON messages (sender_id);
CREATE TABLE file_reservations (
	id INTEGER NOT NULL, 
	project_id INTEGER NOT NULL, 
	agent_id INTEGER NOT NULL, 
	path_pattern VARCHAR(512) NOT NULL, 
	"exclusive" BOOLEAN NOT NULL, 
	reason VARCHAR(512) NOT NULL, 
	created_ts DATETIME NOT NULL, 
	expires_ts DATETIME NOT NULL, 
	released_ts DATETIME, 
	PRIMARY KEY (id), 
	FOREIGN KEY(project_id) REFERENCES projects (id), 
	FOREIGN KEY(agent_id) REFERENCES agents (id)
);
CREATE INDEX ix_file_reservations_agent_id ON file_reservations (agent_id);
CREATE INDEX ix_file_reservations_project_id ON file_reservations (project_id);
CREATE TABLE agent_links (
	id INTEGER NOT NULL, 
	a_project_id INTEGER NOT NULL, 
	a_agent_id INTEGER NOT NULL, 
	b_project_id INTEGER NOT NULL, 
	b_agent_id INTEGER NOT NULL, 
	status VARCHAR(16) NOT NULL, 
	reason VARCHAR(512) NOT NULL, 
	created_ts DATETIME NOT NULL, 
	updated_ts DATETIME NOT NULL, 
	expires_ts DATETIME, 
	PRIMARY KEY (id), 
	CONSTRAINT uq_agentlink_pair UNIQUE (a_project_id, a_agent_id, b_project_id, b_agent_id), 
	FOREIGN KEY(a_project_id) REFERENCES projects (id), 
	FOREIGN KEY(a_agent_id) REFERENCES agents (id), 
	FOREIGN KEY(b_project_id) REFERENCES projects (id), 
	FOREIGN KEY(b_agent_id) REFERENCES agents (id)
);
CREATE INDEX ix_agent_links_a_project_id ON agent_links (a_project_id);
CREATE INDEX ix_agent_links_b_project_id ON agent_links (b_project_id);
CREATE INDEX ix_agent_links_a_agent_id ON agent_links (a_agent_id);
CREATE INDEX ix_agent_links_b_agent_id ON agent_links (b_agent_id);
CREATE TABLE message_recipients (
	message_id INTEGER NOT NULL, 
	agent_id INTEGER NOT NULL, 
	kind VARCHAR(8) NOT NULL, 
	read_ts DATETIME, 
	ack_ts DATETIME, 
	PRIMARY KEY (message_id, agent_id), 
	FOREIGN KEY(message_id) REFERENCES messages (id), 
	FOREIGN KEY(agent_id) REFERENCES agents (id)
);
CREATE VIRTUAL TABLE fts_messages USING fts5(message_id UNINDEXED, subject, body);
CREATE TRIGGER fts_messages_ai
        AFTER INSERT ON messages
        BEGIN
            INSERT INTO fts_messages(rowid, message_id, subject, body)
            VALUES (new.id, new.id, new.subject, new.body_md);
        END;
CREATE TRIGGER fts_messages_ad
        AFTER DELETE ON messages
        BEGIN
            DELETE FROM fts_messages WHERE rowid = old.id;
        END;
CREATE TRIGGER fts_messages_au
        AFTER UPDATE ON messages
        BEGIN
            DELETE FROM fts_messages WHERE rowid = old.id;
            INSERT INTO fts_messages(rowid, message_id, subject, body)
            VALUES (new.id, new.id, new.subject, new.body_md);
        END;
CREATE INDEX idx_messages_created_ts ON messages(created_ts);
CREATE INDEX idx_messages_thread_id ON messages(thread_id);
CREATE INDEX idx_messages_importance ON messages(importance);
CREATE INDEX idx_file_reservations_expires_ts ON file_reservations(expires_ts);
CREATE INDEX idx_message_recipients_agent ON message_recipients(agent_id);
CREATE UNIQUE INDEX uq_agents_name_ci ON agents(lower(name)) WHERE is_active = 1;
